import sys
sys.path.insert(0, "/work/study")
import proto
from function.model import reader
reader.FILE_NAME = 0.0
before = proto.decode_all()
reader.FILE_NAME = 2.0
after = proto.decode_all()
proto.report(before, after, parts=("dev",))
