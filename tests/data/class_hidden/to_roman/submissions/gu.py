import roman


def to_roman(number):
    return roman.toRoman(number)
