def rle(text):
    # loses the last run
    out = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        if j < len(text):
            out.append(f"{text[i]}{j - i}")
        i = j
    return "".join(out)
