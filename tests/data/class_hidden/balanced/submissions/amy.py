def balanced(text):
    brackets = "".join(c for c in text if c in "()[]{}")
    while "()" in brackets or "[]" in brackets or "{}" in brackets:
        brackets = brackets.replace("()", "").replace("[]", "").replace("{}", "")
    return brackets == ""
