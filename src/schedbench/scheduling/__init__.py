"""The scheduling wing: online scheduling with rejection vs speed augmentation (Roy Choudhury, Das,
Garg, Kumar, SODA 2015).

Rooms: :mod:`.model` (Instance, Outcome), :mod:`.problems` (the five problems as data),
:mod:`.engine` (one stepping engine and the read-only view), :mod:`.algorithms` (one file per
algorithm), :mod:`.adversaries` (one file per adaptive adversary), :mod:`.instances` (families),
:mod:`.offline` (optima and bounds), :mod:`.validate` (the independent checker), :mod:`.play`
(the one run path), :mod:`.registry` (plug-ins by name).
"""
