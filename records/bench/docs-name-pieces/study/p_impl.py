import sys
sys.path.insert(0, "/work/study")
import proto
from function.model import reader
reader.NAME_PIECES = 0.0
before = proto.decode_all()
reader.NAME_PIECES = 2.0
after = proto.decode_all()
proto.report(before, after)
