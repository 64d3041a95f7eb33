def balanced(text):
    # counts each kind, never the order
    return all(text.count(a) == text.count(b) for a, b in ("()", "[]", "{}"))
