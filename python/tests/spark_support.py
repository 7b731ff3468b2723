"""Shared helpers of the Spark tests: the CLI binary, the bundled samples as sentence records,
and a standalone Spark master + worker on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: The exit status of a `textreuse` run that finished but skipped damaged input: every run over
#: the bundled samples, whose 2013 dump is damaged on purpose (the damaged part is reported and
#: skipped, everything else is read and all results are written).
SKIPPED_INPUTS = 3


def textreuse_bin() -> str:
    """The `textreuse` binary: $TEXTREUSE_BIN, or built by cargo (release if present)."""
    env = os.environ.get("TEXTREUSE_BIN")
    if env:
        return env
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        candidate = target / profile / "textreuse"
        if candidate.exists():
            return str(candidate)
    subprocess.run(
        ["cargo", "build", "-q", "-p", "textreuse-cli", "--bin", "textreuse"],
        cwd=REPO, check=True,
    )
    return str(target / "debug" / "textreuse")


def run_cli(*args: str, stdout=None, status: int = 0) -> None:
    """Runs `textreuse ARGS...`, which must end with exit status `status`."""
    done = subprocess.run([textreuse_bin(), *args], stdout=stdout)
    assert done.returncode == status, f"textreuse {' '.join(args)}: exit status {done.returncode}"


def sentences(directory: Path, *inputs: str, status: int = 0) -> tuple[Path, Path]:
    """Every sentence of `inputs` (the bundled samples when none; no shingle filter: the Spark
    job filters) and the extractor's counts (`--stats`)."""
    path, stats = directory / "sentences.jsonl", directory / "sentences-stats.json"
    with open(path, "wb") as f:
        run_cli("sentences", "-q", "--min-shingles", "0", "--max-shingles", "0",
                "--stats", str(stats), *inputs, stdout=f, status=status)
    return path, stats


def sample_sentences(directory: Path) -> tuple[Path, Path]:
    """Every sentence of the bundled samples and the extractor's counts."""
    return sentences(directory, status=SKIPPED_INPUTS)


def spark_home() -> str:
    import pyspark

    return os.environ.get("SPARK_HOME") or os.path.dirname(pyspark.__file__)


def java_available() -> bool:
    return shutil.which("java") is not None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with status {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise TimeoutError(f"{what} did not listen on port {port} within {timeout} s")


@contextlib.contextmanager
def standalone_cluster(cores: int = 2, memory: str = "2g", workers: int = 1):
    """Starts `spark-class ...Master` and `workers` x `...Worker` (each with `cores` cores) on
    free loopback ports, yields the master URL and the worker processes (each with its
    `work_dir`, where it makes a directory per executor it launches), and stops them all by PID
    (their process groups)."""
    home = spark_home()
    spark_class = os.path.join(home, "bin", "spark-class")
    logs = Path(tempfile.mkdtemp(prefix="textreuse-spark-"))
    env = dict(os.environ, SPARK_HOME=home, SPARK_LOCAL_IP="127.0.0.1",
               PYSPARK_PYTHON=sys.executable)
    port, ui = free_port(), free_port()
    procs = []
    try:
        master = subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
             "--port", str(port), "--webui-port", str(ui)],
            env=env, stdout=open(logs / "master.log", "wb"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(master)
        _wait_for_port(port, master, "the Spark master")
        url = f"spark://127.0.0.1:{port}"
        started = []
        for i in range(workers):
            worker_ui = free_port()
            worker = subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                 "--cores", str(cores), "--memory", memory, "--webui-port", str(worker_ui),
                 "--work-dir", str(logs / f"work-{i}"), url],
                env=env, stdout=open(logs / f"worker-{i}.log", "wb"), stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            worker.work_dir = logs / f"work-{i}"
            procs.append(worker)
            started.append(worker)
            _wait_for_port(worker_ui, worker, f"Spark worker {i}")
        yield url, started
    finally:
        for proc in reversed(procs):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        shutil.rmtree(logs, ignore_errors=True)


def executor_pids() -> list[int]:
    """PIDs of the executor JVMs a standalone worker launched."""
    out = subprocess.run(
        ["pgrep", "-f", "org.apache.spark.executor.CoarseGrainedExecutorBackend"],
        capture_output=True, text=True,
    )
    return [int(p) for p in out.stdout.split()]


def session(master: str, app: str = "textreuse-test", **conf):
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master).appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.pyspark.driver.python", sys.executable)
    )
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


# Fields of stats.json that describe the run rather than the result.
RUN_ONLY = {"seconds", "bytes_spilled"}


def assert_same_outputs(
    cli: Path,
    spark: Path,
    names=("clusters.jsonl", "duplicates.jsonl", "contradictions.jsonl", "article-pairs.tsv"),
    run_only=RUN_ONLY,
) -> dict:
    """The Spark run's outputs in `spark` are the CLI's in `cli` (by default `textreuse
    dedup`'s files): the same bytes, and the same stats (but for the `run_only` fields, which
    describe how the run went). Returns the Spark run's stats."""
    for name in names:
        assert (cli / name).read_bytes() == (spark / name).read_bytes(), name
    a = json.loads((cli / "stats.json").read_text())
    b = json.loads((spark / "stats.json").read_text())
    assert list(a) == list(b), "same fields in the same order"
    for key in a:
        if key not in run_only:
            assert a[key] == b[key], key
    assert list(a["seconds"]) == list(b["seconds"])
    return b
