"""Op-level oracle: configurations run in msc and compared with results recorded from
MindSpore 2.10 (``expected/``), under the policy in ``policy.py``."""
