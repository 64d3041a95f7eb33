def dedupe(items):
    return list(dict.fromkeys(items))
