#!/usr/bin/env python3
"""Reorders the FFMAs of sm_90 kernels after ptxas, for the register file.

  sass-schedule.py IN.cubin OUT.cubin PREFIX [--c-array NAME FILE.c]
      every kernel whose mangled name starts with PREFIX, rescheduled; with
      --c-array, OUT.cubin also written as a C array NAME (NAME_size bytes)
  sass-schedule.py --verify IN.cubin OUT.cubin PREFIX
      checks OUT against IN by the rules below, independently of the
      scheduler; exit 1 and the first broken rule where one is broken
  sass-schedule.py --selftest IN.cubin PREFIX
      reschedules IN, breaks the result in each way --verify must catch
      (a dependency reversed, a reuse flag that cannot hold) and fails
      unless --verify passes the schedule and rejects every break

Why (gemm's LESSONS.md, cuda-rescheduled): a float GEMM's inner loop is
FFMAs, and what limits it is how many source operands each FFMA reads
from the register banks. The hardware keeps, per operand slot and per
bank, the register an instruction marked with a reuse flag; a later
instruction that reads the same register in the same slot takes it from
there. ptxas orders the FFMAs and sets the flags, and it leaves most
FFMAs with one reuse. This script keeps ptxas's registers and every other
instruction, and within each run of FFMAs picks another order.

The encoding (Volta to Hopper, 128-bit words, read from cuobjdump's
output): opcode bits 0-11 (0x223: FFMA R, R, R, R), predicate 12-15 (7:
none), Rd 16-23, Ra 24-31, Rb 32-39, Rc 64-71; control bits 105-127:
stall cycles 105-108, yield 109, write barrier 110-112, read barrier
113-115, wait mask 116-121, reuse flags 122-125 (slots a, b, c).

The rules a schedule keeps (what --verify checks):
  - only FFMA R, R, R, R without a predicate moves, and only within its
    run: consecutive such words, a new run starting at one that waits on
    a scoreboard (its wait then still comes first);
  - every word keeps its position's control bits but the reuse flags;
  - pairs that share a register keep their order (read after write,
    write after read, write after write), and a read after write stays
    at least min(LAT, its old distance) issue cycles apart, counted from
    the positions' stall counts;
  - an FFMA that reads a register written by the 8 words before its run,
    or writes one read by the 8 words after it, stays in place;
  - a reuse flag on slot s of an FFMA holds only where the next word that
    reads slot s from the same bank, before any word other than FFMA and
    LDS, reads the same register, and nothing writes it in between.
The schedule: list scheduling, position by position, of the ready FFMAs,
the one that takes the most operands from the reuse cache and leaves the
fewest reads in one bank (2 banks: register number mod 2), looking one
FFMA ahead."""
import struct
import sys

LAT = 6     # issue cycles a read after write keeps at least (FFMA: 4)
NB = 2      # register banks
EDGE = 8    # words before and after a run whose registers pin an FFMA
FFMA, LDS = 0x223, 0x984


def bits(w, lo, n):
    return (w >> lo) & ((1 << n) - 1)


def is_ffma(w):
    return bits(w, 0, 12) == FFMA and bits(w, 12, 4) == 7


def is_lds(w):
    return bits(w, 0, 12) == LDS


def dest(w):
    return bits(w, 16, 8)


def sources(w):
    """(slot, register) read by an FFMA; RZ (255) is no read."""
    return [(s, r) for s, r in ((0, bits(w, 24, 8)), (1, bits(w, 32, 8)),
                                (2, bits(w, 64, 8))) if r != 255]


def loaded(w):
    """The registers an LDS writes: up to four from its destination (the
    widest, LDS.128; fewer only makes the rules stricter)."""
    return range(dest(w), dest(w) + 4)


def stall(w):
    return max(1, bits(w, 105, 4))


def wait(w):
    return bits(w, 116, 6)


def reuse(w):
    return bits(w, 122, 4)


CONTROL = ~((1 << 105) - 1)
REUSE = 0xf << 122


def with_reuse(w, r):
    return (w & ~REUSE) | (r << 122)


# ---- the cubin -------------------------------------------------------------
def text_sections(image, prefix):
    """{kernel: (offset, size)} of the .text sections of kernels named
    prefix..."""
    if image[:4] != b'\x7fELF' or image[4] != 2:
        sys.exit('sass-schedule: not a 64-bit ELF cubin')
    shoff, = struct.unpack_from('<Q', image, 0x28)
    size, count, names = struct.unpack_from('<HHH', image, 0x3a)
    heads = [struct.unpack_from('<IIQQQQ', image, shoff + i * size)
             for i in range(count)]
    strings = heads[names][4]
    out = {}
    for name, _, _, _, off, length in heads:
        end = image.index(b'\0', strings + name)
        text = image[strings + name:end].decode()
        if text.startswith('.text.' + prefix):
            out[text[6:]] = (off, length)
    if not out:
        sys.exit('sass-schedule: no kernel named %s... in the cubin' % prefix)
    return out


def words_of(image, off, length):
    return [int.from_bytes(image[off + i:off + i + 16], 'little')
            for i in range(0, length, 16)]


def runs_of(ws):
    runs, cur = [], []
    for i, w in enumerate(ws):
        if is_ffma(w) and not (cur and wait(w)):
            cur.append(i)
            continue
        if len(cur) > 1:
            runs.append(cur)
        cur = [i] if is_ffma(w) else []
    if len(cur) > 1:
        runs.append(cur)
    return runs


def cycles(ws, run):
    c = [0]
    for i in run[:-1]:
        c.append(c[-1] + stall(ws[i]))
    return c


def depends(w, v):
    """(order matters, read after write) for v after w."""
    raw = dest(w) in [r for _, r in sources(v)]
    war = dest(v) in [r for _, r in sources(w)]
    return raw or war or dest(v) == dest(w), raw


def pinned(old, new, run):
    """Positions in run that stay: an FFMA reading a register that the EDGE
    words before the run write (in the old code or the new one, where the
    run before may have moved), or writing one the EDGE words after it read
    (old code: a reader moved closer by the next run's schedule is pinned
    by the first rule there)."""
    written = set()
    for ws in (old, new):
        written |= {dest(w) for w in ws[max(0, run[0] - EDGE):run[0]]}
    read = set()
    for w in old[run[-1] + 1:run[-1] + 1 + EDGE]:
        read |= {bits(w, 24, 8), bits(w, 32, 8), bits(w, 64, 8)}
    return {k for k, i in enumerate(run)
            if dest(old[i]) in read or
            any(r in written for _, r in sources(old[i]))}


# ---- the reuse cache model ----------------------------------------------
def after(cache, w):
    """The cache, (slot, bank) -> register, once word w has issued."""
    if is_ffma(w):
        for s, r in sources(w):
            cache[(s, r % NB)] = r
        for k in [k for k, v in cache.items() if v == dest(w)]:
            del cache[k]
    elif is_lds(w):
        cache.pop((0, bits(w, 24, 8) % NB), None)
        for k in [k for k, v in cache.items() if v in loaded(w)]:
            del cache[k]
    else:
        cache.clear()


def merit(cache, w):
    """Operands from the cache, less the reads that share a bank."""
    hits, banks = 0, []
    for s, r in sources(w):
        if cache.get((s, r % NB)) == r:
            hits += 1
        else:
            banks.append(r % NB)
    shared = max(banks.count(b) for b in range(NB)) - 1 if banks else 0
    return 2 * hits - 1.5 * shared


# ---- the schedule ---------------------------------------------------------
def schedule(ws, done_ws, run, cache):
    """New words for the positions of run (ws: the old code, done_ws: the
    new one so far), or None to keep it."""
    ins = [ws[i] for i in run]
    n = len(ins)
    cyc = cycles(ws, run)
    pred = [set() for _ in range(n)]
    raw = [set() for _ in range(n)]
    for j in range(n):
        for i in range(j):
            order, r = depends(ins[i], ins[j])
            if order:
                pred[j].add(i)
            if r:
                raw[j].add(i)
    pin = pinned(ws, done_ws, run)
    place, at, done = [], {}, set()
    for p in range(n):
        def ready(j, d):
            return j not in d and pred[j] <= d and (j not in pin or j == p)
        cand = [j for j in range(n) if ready(j, done) and all(
            cyc[p] - cyc[at[i]] >= min(LAT, cyc[j] - cyc[i]) for i in raw[j])]
        if p in pin and p not in done:
            cand = [p] if p in cand else []
        if not cand:
            return None
        needed = set()
        for q in pin:
            if q > p and q not in done:
                needed |= pred[q] - done

        def score(j):
            s = merit(cache, ins[j]) + 5 * (j in needed) - 0.001 * j
            nxt = dict(cache)
            after(nxt, ins[j])
            d = done | {j}
            return s + 0.9 * max((merit(nxt, ins[q]) for q in range(n)
                                  if q not in pin and ready(q, d)), default=0)
        j = max(cand, key=score)
        place.append(j)
        at[j] = p
        done.add(j)
        after(cache, ins[j])
    return [(ins[j] & ~CONTROL) | (ws[run[p]] & CONTROL)
            for p, j in enumerate(place)]


def flag_holds(ws, i, s, r):
    """May slot s of FFMA i keep register r for a later word?"""
    for j in range(i + 1, len(ws)):
        w = ws[j]
        if is_ffma(w):
            same = [x for t, x in sources(w) if t == s and x % NB == r % NB]
            if same:
                return same[0] == r
            if dest(w) == r:
                return False
        elif is_lds(w):
            if s == 0 and bits(w, 24, 8) % NB == r % NB:
                return False
            if r in loaded(w):
                return False
        else:
            return False
    return False


def set_flags(ws):
    for i, w in enumerate(ws):
        if is_ffma(w):
            ws[i] = with_reuse(w, sum(
                1 << s for s, r in sources(w)
                if r != dest(w) and flag_holds(ws, i, s, r)))


def reschedule(old):
    ws = list(old)
    starts = {run[0]: run for run in runs_of(old)}
    cache, i = {}, 0
    while i < len(ws):
        run = starts.get(i)
        if run is None:
            after(cache, ws[i])
            i += 1
            continue
        new = schedule(old, ws, run, dict(cache))
        for p, k in enumerate(run):
            if new:
                ws[k] = new[p]
            after(cache, ws[k])
        i = run[-1] + 1
    set_flags(ws)
    return ws


# ---- the check ------------------------------------------------------------
def verify(old, new):
    """The first broken rule, or None."""
    if len(old) != len(new):
        return 'the kernel changed length'
    moved = set()
    for run in runs_of(old):
        moved |= set(run)
        cyc = cycles(old, run)
        body = [old[i] & ~CONTROL for i in run]
        got = [new[i] & ~CONTROL for i in run]
        if sorted(body) != sorted(got) or len(set(body)) != len(body):
            return 'run at word %d: not a permutation of its FFMAs' % run[0]
        pos = {b: k for k, b in enumerate(got)}
        for k, i in enumerate(run):
            if (new[i] & CONTROL & ~REUSE) != (old[i] & CONTROL & ~REUSE):
                return 'word %d: control bits moved' % i
        for b in range(len(run)):
            for a in range(b):
                order, r = depends(old[run[a]], old[run[b]])
                pa, pb = pos[body[a]], pos[body[b]]
                if order and pa > pb:
                    return 'run at word %d: a dependency reversed' % run[0]
                if r and cyc[pb] - cyc[pa] < min(LAT, cyc[b] - cyc[a]):
                    return ('run at word %d: a read too soon after its '
                            'write' % run[0])
        for k in pinned(old, new, run):
            if pos[body[k]] != k:
                return 'run at word %d: a pinned FFMA moved' % run[0]
    for i in range(len(old)):
        if i not in moved and (old[i] & ~REUSE) != (new[i] & ~REUSE):
            return 'word %d changed outside the runs' % i
        if i not in moved and not is_ffma(old[i]) and old[i] != new[i]:
            return 'word %d (not an FFMA) changed' % i
    for i, w in enumerate(new):
        if is_ffma(w):
            for s, r in sources(w):
                if reuse(w) >> s & 1 and (
                        r == dest(w) or not flag_holds(new, i, s, r)):
                    return 'word %d: a reuse flag that cannot hold' % i
    return None


# ---- the self-test --------------------------------------------------------
def reversed_pair(old, new):
    """new with the first dependent pair of a run swapped back, or None."""
    for run in runs_of(old):
        for b in range(len(run)):
            for a in range(b):
                x, y = run[a], run[b]
                if depends(new[x], new[y])[0]:
                    bad = list(new)
                    bad[x] = (new[y] & ~CONTROL) | (new[x] & CONTROL)
                    bad[y] = (new[x] & ~CONTROL) | (new[y] & CONTROL)
                    return bad
    return None


def false_flag(new):
    """new with a reuse flag on an FFMA whose next FFMA reads another
    register of the same bank in that slot, or None."""
    for i in range(len(new) - 1):
        w, v = new[i], new[i + 1]
        if not (is_ffma(w) and is_ffma(v)):
            continue
        s, r = sources(w)[0]
        nxt = [x for t, x in sources(v) if t == s]
        if nxt and nxt[0] != r and nxt[0] % NB == r % NB:
            bad = list(new)
            bad[i] = with_reuse(w, reuse(w) | 1 << s)
            return bad
    return None


# ---- the command ----------------------------------------------------------
def kernels(image, prefix):
    for name, (off, length) in sorted(text_sections(image, prefix).items()):
        yield name, off, length, words_of(image, off, length)


def put(image, off, ws):
    for k, w in enumerate(ws):
        image[off + 16 * k:off + 16 * k + 16] = w.to_bytes(16, 'little')


def c_array(image, name, path):
    with open(path, 'w') as f:
        f.write('/* Made by scripts/sass-schedule.py: an sm_90 cubin. */\n'
                '#include <stddef.h>\n'
                'extern const unsigned char %s[];\n'
                'extern const size_t %s_size;\n'
                '_Alignas(16) const unsigned char %s[] = {\n'
                % (name, name, name))
        for k in range(0, len(image), 16):
            f.write(','.join(str(b) for b in image[k:k + 16]) + ',\n')
        f.write('};\nconst size_t %s_size = sizeof %s;\n' % (name, name))


def stats(ws):
    f = [w for w in ws if is_ffma(w)]
    return sum(bin(reuse(w)).count('1') for w in f) / max(1, len(f))


def main(argv):
    if len(argv) >= 4 and argv[0] == '--verify':
        old, new = open(argv[1], 'rb').read(), open(argv[2], 'rb').read()
        if len(old) != len(new):
            sys.exit('sass-schedule --verify: the images differ in size')
        for name, off, length, ws in kernels(old, argv[3]):
            broken = verify(ws, words_of(new, off, length))
            if broken:
                sys.exit('sass-schedule --verify: %s: %s' % (name, broken))
        print('sass-schedule --verify: %d kernels keep every rule'
              % len(text_sections(old, argv[3])))
        return
    if len(argv) >= 3 and argv[0] == '--selftest':
        image = open(argv[1], 'rb').read()
        for name, off, length, ws in kernels(image, argv[2]):
            new = reschedule(ws)
            broken = verify(ws, new)
            if broken:
                sys.exit('sass-schedule --selftest: %s: %s' % (name, broken))
            made = (reversed_pair(ws, new), false_flag(new))
            breaks = [b for b in made if b]
            caught = sum(verify(ws, b) is not None for b in breaks)
            if len(breaks) != 2 or caught != 2:
                sys.exit('sass-schedule --selftest: %s: %d of 2 breaks made, '
                         '%d caught' % (name, len(breaks), caught))
        print('sass-schedule --selftest: the schedules keep every rule; '
              'both breaks caught')
        return
    if len(argv) not in (3, 6) or (len(argv) == 6 and argv[3] != '--c-array'):
        sys.exit(__doc__.split('\n\n')[0])
    image = bytearray(open(argv[0], 'rb').read())
    for name, off, length, ws in kernels(image, argv[2]):
        before = stats(ws)
        new = reschedule(ws)
        broken = verify(ws, new)
        if broken:
            sys.exit('sass-schedule: %s: %s' % (name, broken))
        put(image, off, new)
        print('sass-schedule: %s: %.2f -> %.2f reused operands an FFMA'
              % (name, before, stats(new)))
    open(argv[1], 'wb').write(image)
    if len(argv) == 6:
        c_array(image, argv[4], argv[5])


if __name__ == '__main__':
    main(sys.argv[1:])
