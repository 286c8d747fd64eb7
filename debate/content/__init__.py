"""What a turn's words do, measured on the text alone: pure functions, no model, no Streamlit.

- `sentences`: where the last complete sentence ends (a turn the budget ran out on is ended there), and
  a streaming detector for a turn that loops (a repeated sentence or a long repeated word n-gram), in
  linear time over hostile model text;
- `script`: characters outside the task's script (an English task answered partly in CJK or Cyrillic);
- `echo`: a turn that fills its answer with the format's placeholder ("Brief explanation of your
  decision…") instead of an answer;
- `figures`: the figures a turn states (numbers, percentages, years, amounts) and which of them appear
  in none of the claim, the evidence and the earlier turns;
- `substance`: what a turn argues — a copy of another speaker, both sides or the other side, a refusal,
  off the claim, a named source no claim or evidence names (marked like a figure), a rebuttal that
  answers, a judge's reason that ends and label that is the verdict shown;
- `consistency`: not a turn but a whole screen's text: the statements a rendered screen or export makes
  about a debate (verdict, votes as written and counted, consensus, stop) and where two contradict.

The benchmark (bench/bench_content.py) scores turns with these, the decoder uses `sentences` and
`script` while generating, and the viewer marks what `figures` finds. Imports nothing else of `debate`.
"""
