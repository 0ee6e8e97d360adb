"""Task programs: manifests (schema), toolchains (found or not), builds, commands, installers.

The runner's only door to runtime knowledge: everything here is read from tasks/*/task.toml.
"""

from runner.tasks.build import BuildError, build, build_all, is_built
from runner.tasks.commands import run_command
from runner.tasks.manifest import (
    Failure,
    ManifestError,
    TaskFolder,
    Variant,
    folders,
    load_all,
    load_folder,
)
from runner.tasks.toolchain import FoundTool, Readiness, find_tool, readiness, resolve

__all__ = [
    "BuildError",
    "Failure",
    "FoundTool",
    "ManifestError",
    "Readiness",
    "TaskFolder",
    "Variant",
    "build",
    "build_all",
    "find_tool",
    "folders",
    "is_built",
    "load_all",
    "load_folder",
    "readiness",
    "resolve",
    "run_command",
]
