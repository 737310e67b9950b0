"""The course's checking and the teacher's tools: the exercises' card, the one judge of a typed
answer (`grading`), the graders of learner code and the wrong answers they must refuse, the
learner's answers file, and the teacher's switch and key. The exercises themselves, the
lessons' wrong answers and the class table's command are the public modules above this folder.
"""
