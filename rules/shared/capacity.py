"""How much of one kind of costly work a process does at once, and work shared by the
requests that ask for the same thing at the same moment.

A gunicorn worker (gunicorn.conf.py) answers with 16 threads that take turns holding
Python's one lock (the GIL). A cached page costs a reader a millisecond; a player's
question, a suggestion's word diff or a large preview cost tens to hundreds. Bounding
each request's cost (``rules.shared.diffing``'s work limit, the forms' sizes) is not
enough: 34 strangers previewing at once each had a thread, every thread wanted the
GIL, and a reader waited for all of them (bench/attack.py: p99 4.7 s). So costly work
goes through a **lane** per kind: at most ``size`` requests of that kind at work in
one process, at most ``queue`` more waiting up to ``wait`` seconds for a place, and the
rest refused at once (``Busy``: the page or the API says "busy, try again" with
``Retry-After``). A waiting request holds a thread too, hence the queue's bound: at most
``size + queue`` threads of a process are ever given to one kind of costly work, the
rest stay free for readers, whose share of the GIL is then a third, not a seventeenth.
Lanes are per process, like the threads they protect; with N processes (workers,
nodes) N × ``size`` run at once.

``SharedWork`` runs one computation for the requests that ask for the same key at the
same time (a question read out on a stream, asked by a hundred players in the same
second): the first computes, the others wait for its result, which they share. It
never outlives the computation: repeating a question later is the response cache's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


class Busy(Exception):
    """Every place of a lane stayed taken for as long as a request may wait."""

    def __init__(self, lane: str, retry_after: int):
        super().__init__(f"{lane}: busy")
        self.lane, self.retry_after = lane, retry_after


class Lane:
    """At most ``size`` holders at once in this process and ``queue`` requests waiting,
    each up to ``wait`` seconds; any other gets ``Busy`` (``retry_after``: the seconds
    to tell it)."""

    def __init__(self, name: str, size: int, queue: int, wait: float, retry_after: int = 5):
        self.name, self.size, self.queue, self.wait, self.retry_after = name, size, queue, wait, retry_after
        self._places = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._waiting = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        acquired = self._places.acquire(blocking=False)
        if not acquired:
            with self._lock:
                if self._waiting >= self.queue:
                    raise Busy(self.name, self.retry_after)
                self._waiting += 1
            try:
                acquired = self._places.acquire(timeout=self.wait)
            finally:
                with self._lock:
                    self._waiting -= 1
        if not acquired:
            raise Busy(self.name, self.retry_after)
        try:
            yield
        finally:
            self._places.release()


class SharedWork:
    """One computation per key at a time; whoever asks meanwhile gets its result."""

    def __init__(self):
        self._lock = threading.Lock()
        self._running: dict[Hashable, Future] = {}

    def run(self, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            running = self._running.get(key)
            if running is None:
                running = self._running[key] = Future()
                owner = True
            else:
                owner = False
        if not owner:
            return running.result()
        try:
            result = compute()
        except BaseException as error:
            running.set_exception(error)
            raise
        else:
            running.set_result(result)
            return result
        finally:
            with self._lock:
                del self._running[key]
