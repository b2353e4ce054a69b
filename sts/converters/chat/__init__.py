"""What the openai and sharegpt converters share: reading chat containers, OpenAI messages,
content parts, side media, the Hermes text conventions, and ShareGPT turns."""
