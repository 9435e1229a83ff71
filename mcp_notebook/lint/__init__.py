"""The tool linter: each tool's interface against what helps a model call it right."""
