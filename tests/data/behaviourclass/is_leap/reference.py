def is_leap(year):
    """Whether year is a leap year in the Gregorian calendar.

    >>> is_leap(2024)
    True
    >>> is_leap(1900)
    False
    >>> is_leap(2000)
    True
    >>> is_leap(2023)
    False
    """
    if year % 400 == 0:
        return True
    if year % 100 == 0:
        return False
    return year % 4 == 0
