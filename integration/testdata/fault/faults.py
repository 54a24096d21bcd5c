# The Python side of the fault program (integration/fault_test.go): each
# function misbehaves in one way a user's code can.
import os
import signal
import time


def ok(x):
    return 2 * x


def nap(seconds):
    time.sleep(seconds)
    return "slept"


def crash(how):
    if how == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif how == "abort":
        os.abort()
    elif how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif how == "exit":
        os._exit(3)
    time.sleep(5)  # the signal is on its way
    return 0


def alloc(mb):
    block = b"x" * (mb << 20)  # written, so resident
    return len(block) >> 20


def huge(mb):
    return "x" * (mb << 20)


def recurse(n):
    return 0 if n == 0 else 1 + recurse(n - 1)


def chatty(x):
    print("chatty print", x, flush=True)
    os.write(1, b"chatty os.write to fd 1\n")
    return x


def nonfinite(kind):
    return {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}[kind]


def nonfinites(kind):
    return [1.0, nonfinite(kind)]
