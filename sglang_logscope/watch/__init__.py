"""Follow a launch as it happens: ``follow`` reads a growing file, ``phases`` tracks the startup
phases of a run, ``watcher`` decides what the launch did, ``result`` holds what it says,
``loop`` runs it; ``launch`` starts a server with a record beside its log."""
