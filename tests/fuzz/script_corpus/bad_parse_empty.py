
# only a comment
