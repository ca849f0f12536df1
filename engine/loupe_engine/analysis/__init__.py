"""Dataset analysis (issue 35): statistics, health findings and recommendations of a COCO dataset."""
