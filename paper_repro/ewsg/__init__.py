"""EWSG (Li, Wang, Zha, Tao 2021; seed ``000_8e0377c44e2ea3b8.txt``): §5.1, Figure 1 and Theorem 4.3."""
