"""People settling hard cases: queues chosen from evaluation runs or uploads (hardcases.py), the labels
people give, kept in the debate database and exported in each dataset's format (annotations.py), and how
far annotators agree with each other and with the judge (agreement.py, pure); the accounts of a labelling
team, who signs in and who may review (accounts.py), and which passwords they may have (passwords.py).

Review layer: may import evaluation results, the store and everything below them; never the CLI.
"""
