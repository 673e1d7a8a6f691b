"""The check: is a log's last run the launch the user intended? ``argdiff`` compares arguments,
``judge`` weighs the evidence into a verdict, ``wording`` says it in one paragraph."""
