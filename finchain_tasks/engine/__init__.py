"""The verifiable template engine: builder, formula language, problem record, verifier."""

from finchain_tasks.engine.builder import Builder, Redraw, TemplateError
from finchain_tasks.engine.problem import LEVELS, STEP_BOUNDS, Problem, Step
from finchain_tasks.engine.registry import Template, all_templates, get, select, template

__all__ = [
    "LEVELS", "STEP_BOUNDS", "Builder", "Problem", "Redraw", "Step", "Template", "TemplateError",
    "all_templates", "get", "select", "template",
]
