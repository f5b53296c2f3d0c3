#!/usr/bin/env python3
"""Runs docs/clusters.md's commands: every ```sh block whose first lines hold `# test: cpu` runs
as written, on the CPU backend, in a scratch folder that sees the repository's inputs/, with
`parasol` on PATH naming the built binary, the page's own variables set small (G=2 C=1 N=1, a
hostfile of this host) and Open MPI allowed to run as root and oversubscribe. Blocks marked
`# test: slurm` need Slurm; they are checked for syntax with `bash -n`.

usage: clusters_doc_test.py docs/clusters.md PARASOL
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# What a block's output must hold beside its status 0, by a word of the block.
EXPECTED = {
    "mpirun": ["laplace3d"],
    "h5py": ["2 "],
    "timeout": ["parasol: interrupted by SIGTERM", "status 143"],
    "--restart": ["status 75", "parasol: SIGUSR1: stopped at iteration", "converged"],
}


def blocks(text):
    """(marker, body) for each ```sh block with a `# test: WHAT` line among its first two."""
    found = []
    for body in re.findall(r"```sh\n(.*?)```", text, re.S):
        head = body.splitlines()[:2]
        marks = [m.group(1) for m in (re.match(r"# test: (\w+)", line) for line in head) if m]
        found.append((marks[0] if marks else None, body))
    return found


def main():
    page, parasol = sys.argv[1], os.path.abspath(sys.argv[2])
    repo = os.path.dirname(os.path.dirname(os.path.abspath(page)))
    with open(page) as f:
        found = blocks(f.read())
    failures = []
    cpu = [b for m, b in found if m == "cpu"]
    slurm = [b for m, b in found if m == "slurm"]
    unmarked = [b for m, b in found if m is None]
    # The page promises every block is tested: one without a marker is a mistake on the page.
    if unmarked:
        failures.append("blocks without a `# test:` marker:\n" + "\n".join(unmarked))
    if len(cpu) < 3 or len(slurm) < 2:
        failures.append("expected at least 3 cpu and 2 slurm blocks, found %d and %d"
                        % (len(cpu), len(slurm)))

    for body in slurm:
        done = subprocess.run(["bash", "-n"], input=body, capture_output=True, text=True)
        if done.returncode != 0:
            failures.append("slurm block does not parse:\n%s\n%s" % (body, done.stderr))
        for needed in ("srun --mpi=pmix", "--gpus-per-task=1", "--cpus-per-task=", "--threads"):
            if needed not in body:
                failures.append("slurm block lacks %r:\n%s" % (needed, body))

    try:
        import h5py  # noqa: F401  (the rank map block reads the result with it)
        have_h5py = True
    except ImportError:
        have_h5py = False

    with tempfile.TemporaryDirectory(prefix="parasol-clusters-") as scratch:
        bindir = os.path.join(scratch, "bin")
        os.mkdir(bindir)
        os.symlink(parasol, os.path.join(bindir, "parasol"))
        # The page's python3 is the one running this test, which has h5py where it was found.
        os.symlink(sys.executable, os.path.join(bindir, "python3"))
        work = os.path.join(scratch, "work")
        os.mkdir(work)
        os.symlink(os.path.join(repo, "inputs"), os.path.join(work, "inputs"))
        hostfile = os.path.join(scratch, "hosts")
        with open(hostfile, "w") as f:
            f.write("localhost slots=2\n")
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], G="2", C="1",
                   N="1", HOSTFILE=hostfile, OMPI_ALLOW_RUN_AS_ROOT="1",
                   OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
        for body in cpu:
            if "h5py" in body and not have_h5py:
                print("skipped (no h5py): " + body.splitlines()[1])
                continue
            if "mpirun" in body and not shutil.which("mpirun"):
                print("skipped (no mpirun): " + body.splitlines()[1])
                continue
            done = subprocess.run(["bash", "-c", body], cwd=work, env=env, capture_output=True,
                                  text=True, timeout=240)
            out = done.stdout + done.stderr
            print("$ " + body.strip().replace("\n", "\n  ") + "\n" + out)
            if done.returncode != 0:
                failures.append("status %d:\n%s\n%s" % (done.returncode, body, out))
            for word, wanted in EXPECTED.items():
                if word in body:
                    failures += ["%r not in the output of:\n%s\n%s" % (w, body, out)
                                 for w in wanted if w not in out]
        if os.path.exists(os.path.join(work, "results", "cut.h5")):
            failures.append("an interrupted run left results/cut.h5")

    for f in failures:
        print("FAIL: " + f)
    print("%d cpu blocks, %d slurm blocks, %d failures" % (len(cpu), len(slurm), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
