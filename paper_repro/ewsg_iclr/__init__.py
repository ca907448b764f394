"""EWSG, conference text (Li, Wang, Zha, Tao; seed ``003_19372d6d86d2623b.txt``): §5.1 at n = 20, Figure 1a–l, Theorems 2 and 4."""
