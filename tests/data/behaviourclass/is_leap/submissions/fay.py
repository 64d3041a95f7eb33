def is_leap(year):
    return year % 2 == 0
