def to_roman(number):
    """The Roman numeral of a whole number from 1 to 3999.

    >>> to_roman(1994)
    'MCMXCIV'
    >>> to_roman(4)
    'IV'
    >>> to_roman(3999)
    'MMMCMXCIX'
    """
    values = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
              (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = ""
    for value, letters in values:
        while number >= value:
            out += letters
            number -= value
    return out
