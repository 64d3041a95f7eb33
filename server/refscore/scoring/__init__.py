"""The one scoring pipeline: text in, typed report out. CLI, editor and grader all call it."""
