def fizzbuzz(limit):
    words = []
    for k in range(1, limit + 1):
        word = ""
        if k % 3 == 0:
            word += "Fizz"
        if k % 5 == 0:
            word += "Buzz"
        words.append(word or str(k))
    return words


def running_max(numbers):
    # keep the largest value seen so far
    out = []
    current = None
    for n in numbers:
        if current is None or n > current:
            current = n
        out.append(current)
    return out
