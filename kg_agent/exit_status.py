"""What every ``kg-agent`` command shares: its exit status and what Ctrl-C does.

Exit status, the same for ``ask``, ``eval`` and ``load`` (each command's ``--help`` shows :data:`EXIT_STATUS_HELP`):
0 answered, 1 nothing answered (the reason on stderr), 2 bad input or usage, 130 interrupted.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: Exit status of a command that did its work (``ask``: gave an answer).
ANSWERED = 0
#: Exit status when nothing was answered (the reason is printed on stderr).
NOTHING_ANSWERED = 1
#: Exit status for bad input or usage (an empty question, a missing or unreadable file, a bad option).
BAD_INPUT = 2
#: Exit status of ``kg-agent load`` when another load is writing the same store (``EX_TEMPFAIL`` of sysexits.h:
#: try again once it has ended).
STORE_BUSY = 75
#: Exit status of a command stopped by Ctrl-C (128 + SIGINT).
INTERRUPTED = 130

EXIT_STATUS_HELP = """exit status:
  0    done; ask: answered; eval: at least one question answered
  1    nothing answered: no entity of the knowledge graph found in the question (the closest labels are
       shown), no path to an answer, the budget ran out, or the knowledge graph is empty; why is printed
       on stderr
  2    bad input or usage: an empty question, a missing, unreadable or non-UTF-8 file, a bad option,
       a damaged document index, a SPARQL endpoint that cannot be reached or does not answer within
       --kg-timeout (the endpoint and the reason are printed)
  130  interrupted (Ctrl-C); what was kept is printed

A chat model is used only when named: --model, else the KG_AGENT_MODEL environment variable; otherwise
every decision is made offline (an API key in the environment alone never selects a model)."""


@contextmanager
def interrupts_end_the_command(command: str, kept: Callable[[], str | None]) -> Iterator[None]:
    """Ctrl-C during ``kg-agent ask`` or ``eval``. The first raises ``KeyboardInterrupt`` where the command is (an
    eval then writes its finished questions); then the process says what was kept (``kept()``; ``None``: the
    command said it already) and exits with status 130 at once, without waiting for model calls still in flight
    (their threads are abandoned: joining them could take a whole model timeout). A second Ctrl-C exits at once,
    whatever is running.

    Only in the main thread (where Python delivers signals); elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    interrupts = 0

    def on_interrupt(signum: int, frame: Any) -> None:
        nonlocal interrupts
        interrupts += 1
        if interrupts > 1:
            os.write(sys.stderr.fileno(), f"\nkg-agent {command}: interrupted again; exiting now\n".encode())
            os._exit(INTERRUPTED)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        yield
    except KeyboardInterrupt:
        said = kept()
        if said is not None:
            print(f"\nkg-agent {command}: interrupted; {said}", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(INTERRUPTED)
    finally:
        signal.signal(signal.SIGINT, previous)
