"""Adjudication: hard-case queues, labels, agreement and the accounts of a labelling team."""
