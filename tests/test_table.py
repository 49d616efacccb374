"""A table's cell as the answer (``function.model.table``): the column a question asks for, in the row it points to."""

import numpy as np
import pytest

from function.model.table import asked_column, table_cell, tables

RANDOM = ("Octave can generate random numbers from a large number of distributions.\n\n"
          "Distribution | Function\n"
          "Exponential Distribution | rande\n"
          "Gamma Distribution | randg\n"
          "Poisson Distribution | randp\n"
          "Uniform Distribution | rand\n")
OPTIONS = ("Options\n\n"
           "Key | Type | Minimum Version | Notes\n"
           "zip_safe | bool | |\n"
           "install_requires | file:, list-semi | | BETA\n"
           "extras_require | file:, section | | BETA\n")


def _rows(text):
    return [[text[a:z] for a, z in row] for table in tables(text) for row in table]


def test_tables_reads_rows_of_cells_under_a_header():
    assert _rows(RANDOM)[:2] == [["Distribution", "Function"], ["Exponential Distribution", "rande"]]
    assert _rows(OPTIONS)[1] == ["zip_safe", "bool", "", ""]  # empty cells kept in their place


def test_a_bar_inside_a_cell_is_no_border():
    text = ("Primitive | Meaning\nless|greater <length> | packets by their length\n"
            "port <port> | packets to or from a port\nhost <host> | packets to or from a host\n")
    assert _rows(text)[1] == ["less|greater <length>", "packets by their length"]
    a, z = table_cell("Which primitive selects packets by their length?", text)
    assert text[a:z] == "less|greater <length>"  # split at every bar, the row had three cells and was no table


@pytest.mark.parametrize("text", [
    "a_b | c\nd | e\nf | g\n",  # the first row is no header: a name in it
    "Name | Value\nx | 1\n",  # two rows are no table
    "Name | Value\nx | 1\ny | 2 | 3\n",  # a row of another width ends the run
    "cat a | grep b\nls | wc\nps | sort\n",  # shell pipes, no header
])
def test_what_is_not_a_table_with_a_header(text):
    assert tables(text) == []


def test_a_code_blocks_lines_are_no_table():
    text = "Name | Value\nx | 1\ny | 2\n"
    assert tables(text, np.array([[0, len(text)]])) == []
    assert len(tables(text)) == 1


@pytest.mark.parametrize("question, header, column", [
    ("Which function draws random numbers from a Poisson distribution?", ["Distribution", "Function"], 1),
    ("What type does install_requires take in setup.cfg?", ["Key", "Type", "Minimum Version", "Notes"], 1),
    ("Which formatters print an object?", ["Formatter", "Representation"], 0),  # plural
    ("What minimum version added setup_requires?", ["Key", "Type", "Minimum Version", "Notes"], 2),
    ("How do I draw from a distribution?", ["Distribution", "Function"], None),  # asks for no column
    ("Which distribution does randp draw from?", ["Distribution", "Function"], 0),
    ("Which setup() keyword maps command names?", ["Keyword", "Type"], 0),  # a call before the noun
    ("What is the function of a Poisson distribution?", ["Distribution", "Function"], None),  # "is": not a name asked
])
def test_asked_column_is_the_header_cell_the_question_asks_for(question, header, column):
    assert asked_column(question, header) == column


@pytest.mark.parametrize("text, question, cell", [
    (RANDOM, "Which function draws random numbers from a Poisson distribution?", "randp"),
    (RANDOM, "Which function draws from a gamma distribution?", "randg"),
    (OPTIONS, "What type does install_requires take in setup.cfg?", "file:, list-semi"),  # the row it names
    (OPTIONS, "What type does zip_safe take?", "bool"),
    (RANDOM, "Which function draws random numbers?", None),  # no row ahead of the others
    (OPTIONS, "What minimum version added zip_safe?", None),  # the cell is empty
    ("Method | Description\nleftPad(String str, int size) | Left pad a String with spaces.\n"
     "rightPad(String str, int size) | Right pad a String with spaces.\n",
     "Which method pads a String with spaces on the left?", "leftPad"),  # a signature's name
])
def test_table_cell_is_the_asked_column_in_the_row_the_question_points_to(text, question, cell):
    found = table_cell(question, text)
    assert (None if found is None else text[found[0]:found[1]]) == cell
