def rle(text):
    return text
