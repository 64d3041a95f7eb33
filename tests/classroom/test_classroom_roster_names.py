"""Issue 42 items 3, 4 and 11 (rosters): the LMS's own exports read as rosters, without their
non-student rows; the roster's names, SIS ids and sections in the grade books; adjustments by
the real name; Moodle's ``Participant N`` for a student who handed nothing in."""

from __future__ import annotations

from pathlib import Path

from refscore.classroom.adjustments import Adjustment
from refscore.classroom.gradebook import build_gradebook
from refscore.classroom.lms_csv import canvas_csv, moodle_csv, moodle_identifier
from refscore.classroom.roster import load_roster
from refscore.classroom.rubric import rubric_from_data

CANVAS_EXPORT = '''Student,ID,SIS User ID,SIS Login ID,Section,Week 3 (1234)
    Points Possible,,,,,10.00
"Okafor, Ada",4101,S-77,aokafor,Lab 1,
"Lovelace, Grace",4102,S-78,glovelace,Lab 2,
"Student, Test",4199,,,Lab 1,
'''


def test_a_canvas_gradebook_export_is_a_roster_of_students_only(tmp_path: Path):
    path = tmp_path / "gradebook.csv"
    path.write_text(CANVAS_EXPORT, encoding="utf-8")
    roster = load_roster(path)
    assert [(e.name, e.ids[0], e.sis_user_id, e.sis_login_id, e.section) for e in roster] == [
        ("Okafor, Ada", "4101", "S-77", "aokafor", "Lab 1"), ("Lovelace, Grace", "4102", "S-78", "glovelace", "Lab 2")]


def test_roster_names_ids_and_sections_reach_every_grade_book(tmp_path: Path):
    path = tmp_path / "gradebook.csv"
    path.write_text(CANVAS_EXPORT, encoding="utf-8")
    rows = [{"id": "p/okaforada (4101)", "problem": "p", "student": "okaforada", "student_id": "4101", "errors": [],
             "refscore": 1.0},
            {"id": "p/lovelacegrace (4102)", "problem": "p", "student": "lovelacegrace", "student_id": "4102",
             "errors": [], "refscore": 0.5}]
    rubric = rubric_from_data({"points": 10}, tmp_path / "r.toml")
    adjust = [Adjustment("Ada Okafor", "p", -2.0, None, "by real name", 2),
              Adjustment("lovelacegrace", None, 1.0, None, "by the download's name", 3)]
    book = build_gradebook(rows, rubric, adjust, load_roster(path))
    assert not book.notes, book.notes  # neither adjustment was dropped
    assert [(s.name, s.total) for s in book.students] == [("Okafor, Ada", 8), ("Lovelace, Grace", 6)]
    canvas = canvas_csv(book, "Week 3 (1234)").splitlines()
    assert canvas[2] == '"Okafor, Ada",4101,S-77,aokafor,Lab 1,8'
    assert sum("Points Possible" in line for line in canvas) == 1


def test_a_moodle_worksheet_roster_gives_participant_ids(tmp_path: Path):
    path = tmp_path / "worksheet.csv"
    path.write_text("Identifier,Full name,Email address,Status\nParticipant 812,Ada Okafor,ada@x.example,"
                    "No submission\n", encoding="utf-8")
    roster = load_roster(path)
    assert roster[0].ids == ("812", "ada@x.example")
    rows = [{"id": "p/Ada Okafor (812)", "problem": "p", "student": "Ada Okafor", "student_id": roster[0].ids[0],
             "errors": ["Ada Okafor (812): on the roster, but handed nothing in"]}]
    book = build_gradebook(rows, rubric_from_data({}, tmp_path / "r.toml"), [], roster)
    assert moodle_identifier(book.students[0]) == "Participant 812"
    assert moodle_csv(book).splitlines()[1].startswith("Participant 812,Ada Okafor,0,10,")


def test_an_anonymised_book_never_repeats_a_name_from_the_adjustments(tmp_path: Path):
    """Under --anonymise the graders read the book's notes (grade.html): an adjustment written with
    a real name matches no pseudonym, and the note about it must not repeat the name."""
    rows = [{"id": "p/S-1A2B3C", "problem": "p", "student": "S-1A2B3C", "errors": [], "refscore": 1.0}]
    adjust = [Adjustment("Ada Okafor", "p", 1.0, None, "", 2)]
    rubric = rubric_from_data({}, tmp_path / "r.toml")
    assert any("'Ada Okafor'" in n for n in build_gradebook(rows, rubric, adjust).notes)
    notes = build_gradebook(rows, rubric, adjust, anonymised=True).notes
    assert notes and not any("Okafor" in n for n in notes) and any("adjustments line 2" in n for n in notes)
