import sys
sys.path.insert(0, "/work/study")
import proto
from function.model import reader
new = reader.name_pieces_share
def old(question, span, words=None):
    span = span.strip()
    if not reader._IDENTIFIER.fullmatch(span) or not reader._CODE_SHAPED.search(span) or span.lower() in question.lower():
        return 0.0
    pieces = [p.lower() for p in reader._NAME_PIECE.findall(span) if len(p) >= 2]
    if len(pieces) < 2:
        return 0.0
    words = reader._plain_words(question) if words is None else words
    return sum(reader._piece_written(p, words) for p in pieces) / len(pieces)
reader.LIST = 0.0
reader.name_pieces_share = old
before = proto.decode_all()
reader.name_pieces_share = new
after = proto.decode_all()
proto.report(before, after)
