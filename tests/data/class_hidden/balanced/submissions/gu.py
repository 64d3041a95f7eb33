def balanced(text):
    match = {"(": ")", "[": "]", "{": "}"}
    expected = []
    for ch in text:
        if ch in match:
            expected.append(match[ch])
        elif ch in ")]}" and (not expected or expected.pop() != ch):
            return False
    return not expected
