import calendar


def is_leap(year):
    return calendar.isleap(year)
