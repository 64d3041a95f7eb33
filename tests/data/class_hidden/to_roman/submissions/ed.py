def to_roman(number):
    # IV and IX, but not XL, XC, CD or CM
    out = ""
    for value, letters in [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (9, "IX"), (5, "V"),
                           (4, "IV"), (1, "I")]:
        while number >= value:
            out += letters
            number -= value
    return out
