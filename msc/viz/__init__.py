"""Pictures of the optimised IR and of the compile report (``msc ir --format dot|svg|html``):
``scene.py`` says what a picture shows, ``dot.py`` draws it with Graphviz, ``svg.py``
without, ``report.py`` charts the passes and ``html.py`` puts them on one page."""
