"""OpenAI-style chat logs: message lists, fine-tuning JSONL, request/response logs, Responses."""

from sts.converters.openai.converter import OpenAIConverter

__all__ = ["OpenAIConverter"]
