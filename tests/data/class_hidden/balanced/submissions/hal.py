def balanced(text):
    return text == text[::-1]
