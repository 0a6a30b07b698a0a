"""The live referee: camera frames to accepted positions to moves, verdicts, voice and record.

Modules: :mod:`.board` (detections + pose -> a seen board), :mod:`.stability` (accept a
position once it has been still, with no hand, for a window), :mod:`.infer` (the move between
two accepted positions, read through the rules engine), :mod:`.record` (append-only JSON
Lines, resumable), :mod:`.audio`, :mod:`.inputs`, :mod:`.overlay`, :mod:`.pipeline` (the
per-frame loop) and :mod:`.play` (the ``tabletop play`` command). docs/live.md.
"""
