def to_roman(number):
    return str(number)
