"""Whole-task evaluation of wuu-tools against the documented output policies of peer agents.

Modules, top to bottom:

    tasks     the task model; the generated suite (manifest) and the real material with its ground truth
    peers     models of the peers' documented truncation and recovery policies
    wuu       the wuu-tools policy: the real tools, following ``continuation``
    agent     the deterministic scripted agent and the history re-sending arithmetic
    model     ``--model``: a real model through an OpenAI-compatible endpoint, reading with wuu-tools
    report    metrics per task and policy, the budget sweep, markdown and JSON
    chart     the PNG charts (matplotlib, optional ``[eval]`` extra)
"""
