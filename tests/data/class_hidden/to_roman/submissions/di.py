def to_roman(number):
    # no subtractive forms: 4 is IIII
    out = ""
    for value, letters in [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), (1, "I")]:
        while number >= value:
            out += letters
            number -= value
    return out
