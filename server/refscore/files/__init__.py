"""Reading the files a front end scores (``sources``): references, candidates and standard input,
with one clear error per bad input. The scoring pipeline takes texts and never opens a file."""
