"""Facts of the two target formats that both sides need: the writer that produces a target and
the reader that reads it back share one vocabulary (pi's stop reasons, how a system message is
stored in pi, the fields of an STS message). Documented format facts, not code of either side.
"""
