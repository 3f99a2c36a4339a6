"""Timing of Python statements for the bench/ scripts: the best seconds per call of each statement,
their timeit batches alternated so that a burst of load on a shared machine hits all of them, and
the scripts' table rows."""

import timeit


def batch_size(timer):
    """Calls per batch: the first power of 4 whose batch takes at least 2 ms (at most 4^10)."""
    timer.timeit(1)  # warm up: compilation, page faults, thread start, caches
    number = 1
    while number < 1_000_000:
        if timer.timeit(number) >= 2e-3:
            break
        number *= 4
    return number


def best_times(statements, env, repeat):
    """Best seconds per call of each statement (run with globals `env`) over `repeat` rounds, each
    round one batch of every statement in turn."""
    timers = [timeit.Timer(s, globals=env) for s in statements]
    numbers = [batch_size(t) for t in timers]
    best = [float("inf")] * len(timers)
    for _ in range(repeat):
        for i, (t, n) in enumerate(zip(timers, numbers)):
            best[i] = min(best[i], t.timeit(n) / n)
    return best


def print_row(cells, markdown, width):
    """One table row: Markdown, or the cells right-aligned in `width` columns."""
    if markdown:
        print("| " + " | ".join(cells) + " |", flush=True)
    else:
        print(" ".join(f"{c:>{width}}" for c in cells), flush=True)


def print_header(cells, markdown, width):
    """The table's header row (and, in Markdown, the separator line under it)."""
    print_row(cells, markdown, width)
    if markdown:
        print("|" + "---|" * len(cells), flush=True)
