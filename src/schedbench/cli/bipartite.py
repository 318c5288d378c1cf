"""stub"""


def add_commands(sub):
    pass
