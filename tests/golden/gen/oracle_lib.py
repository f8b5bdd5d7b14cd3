"""Shared helpers for the golden-file generators (run with the htcondor venv, never by CI).

Run every generator as:
    TZ=UTC faketime -f '2024-01-02 03:04:05' /work/oracle-venv/bin/python gen/<script>.py
so that time()/absTime()/currentTime() are frozen at UTC epoch 1704164645.

Value printing: `fmt(expr_tree, my, target)` evaluates the expression in C++
(classad2's ExprTree.simplify, which is HTCondor's own Evaluate followed by
Literal::MakeLiteral of the resulting Value) and unparses that literal with
HTCondor's compact ClassAdUnParser (repr()).  This keeps the exact value type
(abstime, reltime, lists, nested ads) which a round trip through Python values
(ExprTree.eval, used by shared/conformance/oracle.py show()) would lose: eval
turns reltime into a Python float and abstime into a UTC datetime.
"""
import classad2 as c

GUARD = "zz__guard__"


def parse_expr(text):
    """Parse TEXT as exactly one ClassAd expression; return an ExprTree or None.

    classad2 only parses expressions by wrapping them in an ad.  A guard
    attribute after the expression makes sure the whole text was one
    expression (no trailing garbage such as `1 ]`, no extra `; b = 2`).
    """
    try:
        ad = c.ClassAd("[expression = " + text + "\n; " + GUARD + " = 1]")
    except Exception:
        return None
    keys = sorted(k.lower() for k in ad.keys())
    if keys != ["expression", GUARD]:
        return None
    return ad.lookup("expression")


def value_text(tree, my=None, target=None):
    """Evaluate an ExprTree with MY=my (an empty ad if None) and TARGET=target."""
    if my is None:
        my = c.ClassAd()
    try:
        v = tree.simplify(my, target)
    except Exception as ex:  # evaluation failure (never seen so far)
        return "evaluation failed: " + str(ex).replace("\n", " ")
    return one_line(repr(v))


def one_line(s):
    if "\n" in s or "\t" in s:
        raise ValueError("multi-line value: %r" % s)
    return s


def fmt(text, my=None, target=None):
    tree = parse_expr(text)
    if tree is None:
        return "parse error"
    return value_text(tree, my, target)


def turn_on_old_semantics():
    """Parsing any old-syntax ad flips HTCondor's process-global switch."""
    c.parseOne("ZzOldSemantics = 1\n", c.ParserType.Old)


def esc(s):
    """Escape backslash, tab and newline for one-line records."""
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
