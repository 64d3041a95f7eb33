def rle(text):
    # counts every occurrence, not runs
    out = []
    for ch in dict.fromkeys(text):
        out.append(f"{ch}{text.count(ch)}")
    return "".join(out)
