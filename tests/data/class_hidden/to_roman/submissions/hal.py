def to_roman(number):
    text = "I" * number
    for long, short in (("IIIII", "V"), ("IIII", "IV"), ("VV", "X"), ("VIV", "IX"), ("XXXXX", "L"),
                        ("XXXX", "XL"), ("LL", "C"), ("LXL", "XC"), ("CCCCC", "D"), ("CCCC", "CD"),
                        ("DD", "M"), ("DCD", "CM")):
        text = text.replace(long, short)
    return text
