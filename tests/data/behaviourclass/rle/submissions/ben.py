def rle(text):
    if not text:
        return ""
    result = ""
    current, count = text[0], 1
    for ch in text[1:]:
        if ch == current:
            count += 1
        else:
            result += current + str(count)
            current, count = ch, 1
    return result + current + str(count)
