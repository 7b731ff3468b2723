"""The Spark backend on a standalone cluster (a master and two workers on 127.0.0.1): the
command-line entry end to end from JSON Lines and from Parquet shards, and (slow) an executor
killed mid-stage."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from spark_support import (
    assert_same_outputs,
    executor_pids,
    java_available,
    session,
    standalone_cluster,
)

pytestmark = pytest.mark.skipif(not java_available(), reason="Spark needs Java (java not found)")


def parquet_shards(records, directory, shards: int = 3):
    """The sentence records as `shards` Parquet files in `directory`."""
    import pyarrow.json
    import pyarrow.parquet as pq

    table = pyarrow.json.read_json(str(records))
    directory.mkdir()
    step = -(-table.num_rows // shards)
    for i in range(shards):
        pq.write_table(table.slice(i * step, step), directory / f"part-{i}.parquet")
    return directory


@pytest.mark.parametrize("form", ["jsonl", "parquet-shards"])
def test_command_line_on_two_workers(samples, tmp_path, form):
    d, sentences, counts = samples
    inputs = str(sentences) if form == "jsonl" else str(parquet_shards(sentences, tmp_path / "shards"))
    with standalone_cluster(cores=1, workers=2) as (url, workers):
        out = tmp_path / "out"
        done = subprocess.run(
            [sys.executable, "-m", "textreuse.spark", "dedup", inputs, "--out", str(out),
             "--input-stats", str(counts), "--master", url, "--partitions", "4",
             "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.ui.enabled=false"],
            capture_output=True, text=True, timeout=900,
            env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
        )
        # The samples' six damaged spots were skipped at extraction: status 3, as the CLI's.
        assert done.returncode == 3, done.stderr[-4000:]
        # Both workers ran an executor of the job.
        assert all(list(w.work_dir.glob("app-*/*")) for w in workers), "an executor on each worker"
    assert_same_outputs(d / "cli", out)
    assert "clusters of" in done.stderr
    assert "6 input problem(s)" in done.stderr


@pytest.mark.slow
def test_executor_killed_mid_stage_gives_the_same_result(samples, tmp_path):
    from textreuse.spark import DedupParams, run_dedup

    d, sentences, counts = samples
    with standalone_cluster() as (url, _workers):
        spark = session(url, "textreuse-fault-injection", **{"spark.task.maxFailures": "8"})
        killed: list[int] = []
        stop = threading.Event()

        def killer():
            tracker = spark.sparkContext.statusTracker()
            while not stop.is_set() and not killed:
                for stage in tracker.getActiveStageIds():
                    info = tracker.getStageInfo(stage)
                    if info and info.numActiveTasks > 0:
                        for pid in executor_pids():
                            os.kill(pid, signal.SIGKILL)
                            killed.append(pid)
                        break
                time.sleep(0.02)

        try:
            # Wait for the first executor, then start the job with the killer watching.
            deadline = time.monotonic() + 120
            while not executor_pids() and time.monotonic() < deadline:
                time.sleep(0.5)
            thread = threading.Thread(target=killer, daemon=True)
            thread.start()
            run_dedup(spark, [str(sentences)], str(tmp_path), DedupParams(), input_stats=[str(counts)])
            stop.set()
            thread.join()
        finally:
            spark.stop()
    assert killed, "no executor was running a task to kill"
    assert_same_outputs(d / "cli", tmp_path)
