def rle(text):
    """Run-length encode text: each run of one character as the character and its count.

    >>> rle("aaabcc")
    'a3b1c2'
    >>> rle("")
    ''
    """
    out = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        out.append(f"{text[i]}{j - i}")
        i = j
    return "".join(out)
