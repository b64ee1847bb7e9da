"""pb_fields.py: protobuf messages as lists of [number, wire type, value],
for tests that edit real Lance bytes field by field (tests/newer_lance.py,
tests/cli/cli_eval.sh). Varints are unsigned 64-bit; a length-delimited value is
bytes, to be parsed again where it is a message."""


def rv(b, i):
    """The varint at b[i:], and the offset after it."""
    x = s = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return x, i


def wv(x):
    """x as a varint (two's complement for a negative int, as protobuf)."""
    x &= (1 << 64) - 1
    out = bytearray()
    while True:
        c = x & 0x7F
        x >>= 7
        if not x:
            out.append(c)
            return bytes(out)
        out.append(c | 0x80)


def parse(b):
    """The fields of message b, in their order on the wire."""
    i, out = 0, []
    while i < len(b):
        key, i = rv(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = rv(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        elif wt == 2:
            n, i = rv(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wt)
        out.append([num, wt, v])
    return out


def emit(fields):
    """The message of fields, as parse gives them."""
    out = bytearray()
    for num, wt, v in fields:
        out += wv(num << 3 | wt)
        out += wv(v) if wt == 0 else (wv(len(v)) + v if wt == 2 else v)
    return bytes(out)


def msg(*pairs):
    """A message of (number, int | bytes | str) pairs: varints and length-delimited values."""
    return emit([[n, 0, v] if isinstance(v, int) else [n, 2, v.encode() if isinstance(v, str) else v]
                 for n, v in pairs])
