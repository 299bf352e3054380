import autograd_lab as al

features = al.randn(64, 784)
layer = al.nn.Linear(28, 10)
logits = layer(features)
